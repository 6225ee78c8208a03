# bash completion for layoutctl(8)                                  -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Installed as <bash-completion completionsdir>/layoutctl, or sourced from ~/.bashrc.
#
# Nothing about commands and options is written down here: it all comes, at completion time,
# from the layoutctl being completed, so the completion cannot drift from the binary:
#   layoutctl __complete commands             the commands
#   layoutctl __complete global-options       the global options (long names)
#   layoutctl __complete options CMD          the options of CMD (long names); the global
#                                             ones are accepted after CMD too
#   layoutctl --help, layoutctl help CMD      which options take a value (the usage lines
#                                             "-p, --parallel N  ..."), their short forms,
#                                             and a command's operands (its synopsis)
#   layoutctl __complete values OPTION        an option's values, when the binary knows them
# Only option *values* have a fallback table below, for binaries whose `__complete values`
# does not answer. Volume names come from `gluster volume list` when the gluster CLI is
# there and answers within a few seconds; otherwise nothing is offered for them.
#
# It works with or without the bash-completion package.

# _layoutctl_bin: the layoutctl the user is completing (./layoutctl, ~/bin/layoutctl), or the
# one in PATH. Sets _lctl_bin.
_layoutctl_bin()
{
	_lctl_bin=${COMP_WORDS[0]}
	# shellcheck disable=SC2088 # a literal "~/" as typed: expand it like the shell will
	[[ $_lctl_bin == "~/"* ]] && _lctl_bin=$HOME/${_lctl_bin#"~/"}
	if [[ $_lctl_bin == */* ]]; then
		[[ -x $_lctl_bin && ! -d $_lctl_bin ]] && return 0
	elif type -P -- "$_lctl_bin" >/dev/null 2>&1; then
		return 0
	fi
	_lctl_bin=layoutctl
}

_layoutctl_run()
{
	"$_lctl_bin" "$@" 2>/dev/null
}

# _layoutctl_options [CMD]: the options accepted after CMD (its own and the global ones), or
# before any command (the global ones), one per line.
_layoutctl_options()
{
	local o seen=' '
	while IFS= read -r o; do
		[[ $seen == *" $o "* ]] && continue
		seen+="$o "
		printf '%s\n' "$o"
	done < <(
		[[ $1 ]] && _layoutctl_run __complete options "$1"
		_layoutctl_run __complete global-options
	)
}

# _layoutctl_argopts [CMD]: prints the options of CMD (and the global ones) that take a value,
# long and short forms, one per line, read from the usage lines of its help.
_layoutctl_argopts()
{
	local line re='^[[:space:]]+(-([[:alnum:]]),[[:space:]]+)?(--[[:alnum:]][[:alnum:]-]*) [^[:space:]]'
	local known
	if [[ $1 ]]; then
		known=" $(_layoutctl_options "$1" | tr '\n' ' ') "
		while IFS= read -r line; do
			[[ $line =~ $re && $known == *" ${BASH_REMATCH[3]} "* ]] || continue
			printf '%s\n' "${BASH_REMATCH[3]}"
			[[ ${BASH_REMATCH[2]} ]] && printf -- '-%s\n' "${BASH_REMATCH[2]}"
		done < <(_layoutctl_run help "$1")
	else
		known=" $(_layoutctl_run __complete global-options | tr '\n' ' ') "
		while IFS= read -r line; do
			[[ $line =~ $re && $known == *" ${BASH_REMATCH[3]} "* ]] || continue
			printf '%s\n' "${BASH_REMATCH[3]}"
			[[ ${BASH_REMATCH[2]} ]] && printf -- '-%s\n' "${BASH_REMATCH[2]}"
		done < <(_layoutctl_run --help)
	fi
}

# _layoutctl_operands CMD: the operand names of CMD from its synopsis ("usage: layoutctl
# [GLOBAL OPTIONS] explain VOLUME PATH" -> VOLUME PATH; "[COMMAND]" -> COMMAND).
_layoutctl_operands()
{
	local line w seen=''
	line=$(_layoutctl_run help "$1" | head -n 1)
	line=${line#usage: }
	line=${line//\[GLOBAL OPTIONS\]/}
	line=${line//\[OPTIONS\]/}
	for w in $line; do
		if [[ -z $seen ]]; then
			[[ $w == "$1" ]] && seen=1
			continue
		fi
		w=${w//[\[\]]/}
		w=${w%...}
		[[ $w == [A-Z]* ]] && printf '%s\n' "$w"
	done
}

# _layoutctl_bricks SERVER VOLUME: the bricks of VOLUME, HOST:PATH (drain's operands)
_layoutctl_bricks()
{
	local server=$1 b
	type -P gluster >/dev/null 2>&1 || return 0
	local args=(--mode=script)
	[[ $server && $server != localhost* && $server != 127.* ]] &&
		args+=("--remote-host=${server%:*}")
	while IFS= read -r b; do
		[[ $b =~ ^[^[:space:]]+:/[^[:space:]]*$ ]] && printf '%s\n' "$b"
	done < <(timeout 5 gluster "${args[@]}" volume info "$2" --xml 2>/dev/null |
		sed -n 's|.*<brick [^>]*>\([^<]*\)<.*|\1|p')
}

_layoutctl_volumes()
{
	local server=$1 v
	type -P gluster >/dev/null 2>&1 || return 0
	local args=(--mode=script)
	[[ $server && $server != localhost* && $server != 127.* ]] &&
		args+=("--remote-host=${server%:*}")
	while IFS= read -r v; do
		# "No volumes present in cluster" and errors are not names
		[[ $v =~ ^[[:alnum:]_.-]+$ ]] && printf '%s\n' "$v"
	done < <(timeout 5 gluster "${args[@]}" volume list 2>/dev/null)
}

# _layoutctl_values OPTION CUR SERVER: fills COMPREPLY with the values of OPTION.
_layoutctl_values()
{
	local opt=$1 cur=$2 vals
	vals=$(_layoutctl_run __complete values "$opt") || vals=
	if [[ -z $vals ]]; then
		case $opt in
		--format | -f) vals=$'text\njson\nxml\nprometheus' ;;
		--mode) vals=$'clean-first\nmigrate\nlinkto' ;;
		--phase) vals=$'all\nclean\ndata' ;;
		--layout) vals=$'gluster\nmin-move\neven-usage' ;;
		--progress) vals=$'auto\nalways\nnever' ;;
		--transport) vals=$'tcp\nrdma\nunix' ;;
		--log-level) vals=$'0\n1\n2\n3\n4' ;;
		--gfapi-log-level) vals=$'0\n1\n2\n3\n4\n5\n6\n7\n8\n9' ;;
		--state-dir) vals=@dir ;;
		--log | --log-file | --files-from) vals=@file ;;
		--server | -s) vals=@host ;;
		--volume) vals=@volume ;;
		esac
	fi
	case $vals in
	@dir)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		;;
	@file)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		;;
	@host)
		mapfile -t COMPREPLY < <(compgen -A hostname -- "$cur")
		;;
	@volume)
		mapfile -t COMPREPLY < <(compgen -W "$(_layoutctl_volumes "$3")" -- "$cur")
		;;
	@*) ;;
	*)
		mapfile -t COMPREPLY < <(compgen -W "$vals" -- "$cur")
		;;
	esac
}

_layoutctl()
{
	local _lctl_bin
	_layoutctl_bin

	# Re-join "--opt" "=" "value" and "host" ":" "port", which bash splits at '=' and ':'
	# (COMP_WORDBREAKS), so that words[] holds what layoutctl will see; cword follows.
	local -a words=()
	local i w cword=0 join=0
	for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		if ((join)); then
			words[${#words[@]} - 1]+=$w
			join=0
		elif [[ ${#words[@]} -gt 1 && ( $w == : ||
			( $w == = && ${words[${#words[@]} - 1]} == --* &&
			${words[${#words[@]} - 1]} != *=* ) ) ]]; then
			words[${#words[@]} - 1]+=$w
			((i < COMP_CWORD)) && join=1
		else
			words+=("$w")
		fi
		((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
	done
	local cur=${words[cword]:-}
	# With '=' a word break (the default), readline replaces only what follows it.
	local eqprefix=''
	[[ $COMP_WORDBREAKS != *=* ]] && eqprefix=1

	# Walk the words before the cursor: global options, the command, its options, operands.
	local cmd='' server='' argopts='' nargs=0 skip='' vol=''
	local -a operands=()
	for ((i = 1; i < cword; i++)); do
		w=${words[i]}
		if [[ $skip ]]; then
			[[ $skip == --server || $skip == -s ]] && server=$w
			skip=
			continue
		fi
		((nargs >= 0)) || continue # after "--": operands only
		case $w in
		--) [[ $cmd ]] && nargs=-1000 ;; # no more options: not worth completing after it
		--*=*)
			[[ ${w%%=*} == --server ]] && server=${w#*=}
			;;
		-*)
			# which options take a value: asked only when there are options to skip
			[[ $argopts ]] || argopts=" $(_layoutctl_argopts "$cmd" | tr '\n' ' ') "
			if [[ $argopts == *" $w "* ]]; then
				skip=$w
			elif [[ $w != --* && ${#w} -gt 2 && $argopts == *" ${w:0:2} "* ]]; then
				[[ ${w:0:2} == -s ]] && server=${w:2}
			fi
			;;
		*)
			if [[ -z $cmd ]]; then
				cmd=$w
				argopts=''
			else
				nargs=$((nargs + 1))
				((nargs == 1)) && vol=$w
			fi
			;;
		esac
	done

	COMPREPLY=()
	# the value of an option: "--opt value", "--opt=value", "-s value"
	if [[ $skip ]]; then
		_layoutctl_values "$skip" "$cur" "$server"
		return 0
	fi
	if [[ $cur == --*=* ]]; then
		local opt=${cur%%=*}
		_layoutctl_values "$opt" "${cur#*=}" "$server"
		if [[ $eqprefix ]]; then
			COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
		fi
		return 0
	fi

	# options go before or after the operands, but not after "--", where all is operands
	if [[ $cur == -* ]] && ((nargs >= 0)); then
		local opts
		opts=$(_layoutctl_options "$cmd")
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		return 0
	fi

	if [[ -z $cmd ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_layoutctl_run __complete commands)" -- "$cur")
		return 0
	fi
	((nargs >= 0)) || return 0
	mapfile -t operands < <(_layoutctl_operands "$cmd")
	# drain's last operand repeats
	((nargs < ${#operands[@]} || ${#operands[@]} == 0)) ||
		[[ ${operands[${#operands[@]} - 1]} != 'SUBVOLUME|BRICK' ]] ||
		nargs=$((${#operands[@]} - 1))
	case ${operands[nargs]:-} in
	'SUBVOLUME|BRICK')
		mapfile -t COMPREPLY < <(compgen -W "$(_layoutctl_bricks "$server" "$vol")" -- "$cur")
		;;
	VOLUME)
		mapfile -t COMPREPLY < <(compgen -W "$(_layoutctl_volumes "$server")" -- "$cur")
		;;
	COMMAND)
		mapfile -t COMPREPLY < <(compgen -W "$(_layoutctl_run __complete commands)" -- "$cur")
		;;
	esac
	# PATH (inside the volume) and anything else: nothing to offer
	return 0
}

complete -F _layoutctl layoutctl
