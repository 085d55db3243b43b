# Drives a bash completion function the way readline does, for the tests in completion.rs.
#
# Usage: bash --norc --noprofile complete-harness.bash SCRIPT COMMAND LINE...
#
# Sources SCRIPT (after bash-completion's library when $BASH_COMPLETION names it: kubectl's
# script needs it), finds the function `complete -p COMMAND` names, and for each LINE sets
# COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT as readline would with the cursor at its
# end (a trailing space starts a new, empty word), calls the function, and prints COMPREPLY one
# word a line, then `<<END>>`. Words are split on spaces only, so a LINE must avoid the other
# COMP_WORDBREAKS characters (= and :).

script=$1 command=$2
shift 2
if [[ -n $BASH_COMPLETION ]]; then
  source "$BASH_COMPLETION" || exit 3
fi
source "$script" || exit 3
spec=$(complete -p "$command") || { echo "nothing completes $command" >&2; exit 4; }
fn=${spec#*-F }
fn=${fn%% *}
for line in "$@"; do
  read -ra COMP_WORDS <<< "$line"
  [[ $line == *' ' ]] && COMP_WORDS+=('')
  COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
  COMP_LINE=$line
  COMP_POINT=${#line}
  COMP_TYPE=9
  COMP_KEY=9
  COMPREPLY=()
  "$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
  printf '%s\n' "${COMPREPLY[@]}" '<<END>>'
done
