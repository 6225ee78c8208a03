/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the volfile parser and subtree writer (input comes from the network). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layoutctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lctl_volfile vf;
	struct lctl_error err;
	size_t i;

	if (lctl_volfile_parse((const char *)data, size, &vf, &err))
		return 0;
	for (i = 0; i < vf.nxl; i++) {
		char *s = lctl_volfile_subtree(&vf.xl[i]);
		struct lctl_volfile again;

		/* what we write must parse again, to the same number of translators or fewer */
		if (!s)
			abort();
		if (lctl_volfile_parse(s, strlen(s), &again, &err))
			abort();
		lctl_volfile_release(&again);
		free(s);
	}
	lctl_volfile_find_type(&vf, "cluster/distribute");
	lctl_volfile_release(&vf);
	return 0;
}
