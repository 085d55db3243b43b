"""Parse Prometheus text exposition on standard input with prometheus_client's own parser and
print what it read as JSON: one entry per family, {name, type, help, samples: [{name, labels,
value}]}. The CLI tests (metrics.rs) compare that with `scan -o json`; a text the parser
refuses fails here, with the parser's words, exit status 1."""

import json
import sys

from prometheus_client.parser import text_string_to_metric_families


def main() -> int:
    text = sys.stdin.read()
    try:
        families = [
            {
                "name": f.name,
                "type": f.type,
                "help": f.documentation,
                "samples": [
                    {"name": s.name, "labels": s.labels, "value": s.value}
                    for s in f.samples
                ],
            }
            for f in text_string_to_metric_families(text)
        ]
    except Exception as e:  # the parser's own error types vary across versions
        print(f"exposition.py: the parser refused the text: {e}", file=sys.stderr)
        return 1
    json.dump(families, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
