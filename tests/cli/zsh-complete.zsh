# tests/cli/zsh-complete.zsh FPATH_DIR OUT LINE...: complete each LINE (the cursor at its end),
# one after another, in one interactive zsh on a pseudo-terminal, with the completion functions
# of FPATH_DIR, and write the candidates offered for the Kth LINE to OUT.K, one per line (one
# shell for all: compinit, which reads every completion function, is most of the cost, and a
# user's shell completes many lines too). Used by tests/cli/completion.sh.
# Exit status: 0, 1 when a completion did not finish within 60 seconds, 2 when zsh has no
# zpty module.
#
# A wrapper around compadd records every match the completion functions add; TAB runs a
# widget that calls complete-word and then writes an end marker, which this script waits for.
zmodload zsh/zpty 2>/dev/null || exit 2
emulate -R zsh
local fdir=$1 out=$2 l i k
local raw=$out.raw
shift 2
: >| $raw || exit 99

zpty lctl 'zsh -f -i 2>/dev/null'
zpty -w lctl "PS1= RPS1=; unsetopt zle_bracketed_paste 2>/dev/null"
zpty -w lctl "fpath=(${(q)fdir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w lctl "zstyle ':completion:*' menu no; zstyle ':completion:*' list-grouped false"
zpty -w lctl "compadd() { if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd \"\$@\"; return; fi; local -a _h; builtin compadd -A _h \"\$@\"; print -rl -- \$_h >> ${(q)raw}; builtin compadd \"\$@\"; }"
zpty -w lctl "lctl-complete() { zle complete-word; print -r -- LCTL-COMPLETED >> ${(q)raw}; }; zle -N lctl-complete; bindkey '^I' lctl-complete"
zpty -w lctl "print -r -- LCTL-READY-\$((40+2))"
while zpty -r lctl l; do [[ $l == *LCTL-READY-42* ]] && break; done
for (( k = 1; k <= $#; k++ )); do
  : >| $raw
  zpty -w -n lctl "${@[k]}"$'\t'
  for (( i = 0; i < 600; i++ )); do
    [[ -n ${(M)${(f)"$(<$raw)"}:#LCTL-COMPLETED} ]] && break
    sleep 0.1
  done
  (( i < 600 )) || break
  # the line is emptied for the next one (what the completion inserted included)
  zpty -w -n lctl $'\C-e\C-u'
  print -rl -- ${(u)${${(f)"$(<$raw)"}:#LCTL-COMPLETED}:#} >| $out.$k
done
zpty -w -n lctl $'\C-e\C-u'
zpty -w lctl 'exit'
zpty -d lctl
rm -f -- $raw
(( i < 600 )) || exit 1
