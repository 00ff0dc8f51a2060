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

/* The "CAL:" row of /proc/interrupts, summed over CPUs; -1 if missing. */
static inline long long cal_ipis(void)
{
	char line[4096];
	long long sum = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		long long v;

		while (*p == ' ')
			p++;
		if (strncmp(p, "CAL:", 4))
			continue;
		sum = 0;
		for (p += 4;; p = end) {
			v = strtoll(p, &end, 10);
			if (end == p)
				break;
			sum += v;
		}
		break;
	}
	fclose(f);
	return sum;
}

#define MAX_CPUS	64

/* The "CAL:" row per CPU into @v (MAX_CPUS entries); the CPUs, 0 if missing. */
static inline int cal_ipis_cpu(long long *v)
{
	char line[4096];
	int n = 0;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		while (*p == ' ')
			p++;
		if (strncmp(p, "CAL:", 4))
			continue;
		for (p += 4; n < MAX_CPUS; p = end) {
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

#endif /* GUEST_IPIS_H */
