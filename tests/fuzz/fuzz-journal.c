/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the fix journal reader (a truncated or corrupt file must be refused), and
 * the kept-modes reader on the same bytes (only well-formed, CRC-checked records are loaded).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lctl_journal j;
	struct lctl_modes m;
	struct lctl_error err;
	int n;

	if (lctl_journal_parse((const char *)data, size, &j, &err) == 0) {
		/* accepted: every field must be well formed */
		if (j.scope[0] != '/' || !memchr(j.volume, '\0', sizeof(j.volume)) ||
		    !memchr(j.phase, '\0', sizeof(j.phase)))
			abort();
	}
	memset(&m, 0, sizeof(m));
	n = lctl_modes_parse(&m, (const char *)data, size);
	/* a record is 47 bytes; at most one per record's worth of input */
	if (n < 0 || (size_t)n > size / 47 || m.n > (size_t)n)
		abort();
	free(m.v);
	return 0;
}
