# shellcheck shell=bash
# dhtmodel_build OUT: build tests/integration/tools/dhtmodel.c against the library under test
# ($LCTL_BUILDDIR/.libs/liblctl.a), with the sanitizers that library was built with.
dhtmodel_build() {
	local lib=$LCTL_BUILDDIR/.libs/liblctl.a san=() syms
	[[ -f $lib ]] || fail "no $lib: build the tree first"
	syms=$(nm "$lib" 2>/dev/null | grep -oE '__(asan|ubsan|tsan)_' | sort -u || true)
	[[ $syms != *__asan_* ]] || san+=(-fsanitize=address)
	[[ $syms != *__ubsan_* ]] || san+=(-fsanitize=undefined)
	[[ $syms != *__tsan_* ]] || san+=(-fsanitize=thread)
	# shellcheck disable=SC2046 # pkg-config prints several words
	gcc -O2 -std=gnu11 -Wall -Werror "${san[@]}" -I"$LCTL_SRCDIR/lib" -o "$1" \
		"$LCTL_SRCDIR/tests/integration/tools/dhtmodel.c" "$lib" \
		$(pkg-config --cflags --libs glusterfs-api) -lpthread -lm ||
		fail "cannot build dhtmodel"
}
