# zsh -f zpty_complete.zsh OUT SCRIPT LINE...: an interactive zsh on a pseudo-terminal (zsh's own
# zpty module) runs compinit and sources SCRIPT; each LINE is typed with Tab, then a key bound to
# write the edited line to OUT as "[LINE]", so what is checked is what zsh's completion system put
# on the line. OUT gets "READY" once SCRIPT is loaded.
zmodload zsh/zpty || exit 3
out=$1 script=$2
shift 2
zpty z zsh -f -i
zpty -w z "PS1='> '; autoload -U compinit && compinit -u -D"
zpty -w z "dump() { print -r -- \"[\$BUFFER]\" >> ${(q)out}; BUFFER='' }; zle -N dump; bindkey '^X' dump"
zpty -w z "source ${(q)script}; print -r -- READY >> ${(q)out}"
for i in {1..600}; do grep -q READY $out 2>/dev/null && break; sleep 0.05; done
for line in "$@"; do zpty -w -n z "$line"$'\t\x18'; done
for i in {1..600}; do (( $(grep -c '^\[' $out) >= $# )) && break; sleep 0.05; done
zpty -d z
