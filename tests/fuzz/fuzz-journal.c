/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the fix journal reader (a truncated or corrupt file must be refused). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lctl_journal j;
	struct lctl_error err;

	if (lctl_journal_parse((const char *)data, size, &j, &err) == 0) {
		/* accepted: every field must be well formed */
		if (j.scope[0] != '/' || !memchr(j.volume, '\0', sizeof(j.volume)) ||
		    !memchr(j.phase, '\0', sizeof(j.phase)))
			abort();
	}
	return 0;
}
