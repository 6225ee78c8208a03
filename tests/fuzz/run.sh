#!/bin/bash
# Build the libFuzzer targets with clang (ASan + UBSan) and run each for a bounded time.
#   LCTL_FUZZ_SECONDS (default 10): time per target; run longer by hand, e.g. 600.
# Crashes are kept in $LCTL_TEST_LOGDIR (or ./fuzz-out) as crash-* files and fail the test.
. "$LCTL_SRCDIR/tests/cli/lib.sh"
require_cmd clang

secs=${LCTL_FUZZ_SECONDS:-10}
src=$LCTL_SRCDIR
out=${LCTL_TEST_LOGDIR:-$PWD/fuzz-out}/fuzz
mkdir -p "$out"
# shellcheck disable=SC2054,SC2207 # the commas are -fsanitize's; pkg-config's flags are words
cflags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-D_GNU_SOURCE -DPACKAGE_VERSION='"fuzz"' -I"$src/lib" $(pkg-config --cflags glusterfs-api))
lib=("$src/lib/error.c" "$src/lib/strings.c")

build() { # build NAME SOURCES...
	local name=$1
	shift
	clang "${cflags[@]}" -o "$out/$name" "$@" "${lib[@]}" -lz -lm 2>"$out/$name.build.log" ||
		{ cat "$out/$name.build.log" >&2; fail "cannot build $name"; }
}
build fuzz-volfile "$src/tests/fuzz/fuzz-volfile.c" "$src/lib/volfile.c"
build fuzz-layout "$src/tests/fuzz/fuzz-layout.c" "$src/lib/layout.c" "$src/lib/hash.c" "$src/lib/plan.c" "$src/lib/minmove.c"
build fuzz-journal "$src/tests/fuzz/fuzz-journal.c" "$src/lib/journal.c" "$src/lib/statedir.c"

for t in volfile layout journal; do
	corpus=$out/corpus-$t
	mkdir -p "$corpus"
	cp -n "$src/tests/fuzz/corpus/$t/"* "$corpus/" 2>/dev/null || true
	echo "fuzzing $t for ${secs}s" >&2
	(cd "$out" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		"./fuzz-$t" -max_total_time="$secs" -max_len=8192 -print_final_stats=1 \
		-artifact_prefix="$out/crash-$t-" "$corpus" >"$out/fuzz-$t.log" 2>&1) ||
		{ tail -40 "$out/fuzz-$t.log" >&2; fail "fuzz-$t found a crash (see $out)"; }
	grep -E 'stat::number_of_executed_units' "$out/fuzz-$t.log" >&2 || true
done
exit 0
