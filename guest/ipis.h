/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The function-call IPIs (the "CAL" row of /proc/interrupts) of the guest,
 * for the guest programs that count the IPIs of what they time.
 */
#ifndef GUEST_IPIS_H
#define GUEST_IPIS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPUS	64

/*
 * The "CAL:" row of /proc/interrupts per CPU into @v (MAX_CPUS entries);
 * returns the CPUs, -1 if the row is missing.
 */
static inline int cal_ipis_cpu(long long *v)
{
	char line[4096];
	int n = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		while (*p == ' ')
			p++;
		if (strncmp(p, "CAL:", 4))
			continue;
		for (n = 0, p += 4; n < MAX_CPUS; p = end) {
			v[n] = strtoll(p, &end, 10);
			if (end == p)
				break;
			n++;
		}
		break;
	}
	fclose(f);
	return n;
}

/* The "CAL:" row of /proc/interrupts, summed over CPUs; -1 if missing. */
static inline long long cal_ipis(void)
{
	long long v[MAX_CPUS], sum = 0;
	int i, n = cal_ipis_cpu(v);

	if (n < 0)
		return -1;
	for (i = 0; i < n; i++)
		sum += v[i];
	return sum;
}

#endif /* GUEST_IPIS_H */
