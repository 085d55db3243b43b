# Drives zsh's real completion system (compsys) for the completion tests in completion.rs.
#
# Usage: zsh -f complete-harness.zsh SCRIPT OUT LINE...
#
# Completion widgets only run inside the line editor, which needs a terminal, so this starts an
# interactive `zsh -f -i` on a pseudo-terminal (zsh/zpty), sets it up as a user would
# (compinit, then `source SCRIPT`), and types each LINE followed by TAB. TAB is bound to a
# widget that runs the ordinary completer with compadd wrapped: every word offered to the
# shell (after zsh's own matching against the line) is appended to OUT, then a `<<END>>` line.
# The widget neither inserts nor lists, so nothing waits on a keypress.

zmodload zsh/zpty || { print -u2 "zsh/zpty is missing"; exit 3 }
script=$1 out=$2
shift 2
: >| $out
rc=$out.rc

cat >| $rc <<RC
PS1='' RPS1='' PROMPT_EOL_MARK='' HISTFILE=''
autoload -Uz compinit && compinit -u -D
source ${(q)script}
_harness_compadd() {
  # A call with -O, -A or -D only asks which words match and adds none: pass it through.
  local a
  for a in "\$@"; do
    [[ \$a == -(|-) ]] && break
    [[ \$a == -[^-]#[OAD]* ]] && { builtin compadd "\$@"; return }
  done
  local -a matched
  builtin compadd -O matched "\$@"
  _harness_words+=("\${matched[@]}")
  builtin compadd "\$@"
}
_harness_complete() {
  typeset -ga _harness_words
  _harness_words=()
  functions[compadd]=\$functions[_harness_compadd]
  _main_complete
  unfunction compadd
  print -rl -- "\${_harness_words[@]}" '<<END>>' >> ${(q)out}
  compstate[insert]='' compstate[list]=''
}
zle -C harness-complete complete-word _harness_complete
bindkey '^I' harness-complete
print HARNESS-READY
RC

zpty shell 'zsh -f -i'
zpty -w shell "source ${(q)rc}"
zpty -r shell junk '*HARNESS-READY*' || { print -u2 "the inner zsh did not start"; exit 4 }
done_lines() { print ${#${(M)${(f)"$(<$out)"}:#"<<END>>"}} }
n=0
for line in "$@"; do
  (( n++ ))
  zpty -w -n shell "$line"$'\t'
  for i in {1..400}; do
    (( $(done_lines) >= n )) && break
    zpty -r -t shell junk   # drain the echo so the inner shell never blocks on its terminal
    sleep 0.025
  done
  (( $(done_lines) >= n )) || { print -u2 "no completion within 10 s for: $line"; exit 5 }
  zpty -w -n shell $'\C-u'
done
zpty -d shell
