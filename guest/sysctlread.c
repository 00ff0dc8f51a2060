// SPDX-License-Identifier: GPL-2.0
/*
 * sysctlread: read /proc/sys files from several threads, as fast as they
 * can, and count the reads.
 *
 *   sysctlread SECS THREADS [FILE...]
 *
 * Each read is open(), read(), close() of one file: the permission check,
 * the open and the read each take and drop the table header's use count
 * (sysctl_head_grab()/sysctl_head_finish(): two sysctl_lock round trips
 * each before the hazptr conversion, a hazard pointer after it).  The
 * files' dentries stay cached, so the lookup, which keeps the lock, is not
 * what is measured.  stress-ng --procfs was measured not to touch /proc/sys
 * at all, which is why this exists.  Prints one line:
 *
 *   HAZPTR-SYSCTLREAD threads=N secs=S reads=N reads_per_s=X
 *
 * Built statically by scripts/initramfs.sh into the guest's /usr/bin.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS	64

static const char *default_files[] = {
	"/proc/sys/kernel/ostype",
	"/proc/sys/kernel/pid_max",
	"/proc/sys/vm/overcommit_memory",
	"/proc/sys/net/core/somaxconn",
};

static const char **files;
static int nfiles;
static volatile int stop;

struct worker {
	pthread_t	tid;
	int		id;
	long		reads;
	int		errors;
};

static void *reader(void *arg)
{
	struct worker *w = arg;
	char buf[256];
	unsigned int i = w->id;
	int fd;

	while (!stop) {
		fd = open(files[i++ % nfiles], O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
			w->errors++;
		else
			w->reads++;
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS];
	int secs, nthreads, i, errors = 0;
	long reads = 0;
	double t0, t;

	if (argc < 3 || (secs = atoi(argv[1])) <= 0 ||
	    (nthreads = atoi(argv[2])) <= 0 || nthreads > MAX_THREADS) {
		fprintf(stderr, "usage: sysctlread SECS THREADS(1-%d) [FILE...]\n",
			MAX_THREADS);
		return 2;
	}
	if (argc > 3) {
		files = (const char **)argv + 3;
		nfiles = argc - 3;
	} else {
		files = default_files;
		nfiles = sizeof(default_files) / sizeof(default_files[0]);
	}
	for (i = 0; i < nfiles; i++) {
		if (access(files[i], R_OK)) {
			fprintf(stderr, "sysctlread: cannot read %s\n", files[i]);
			return 1;
		}
	}
	t0 = now();
	for (i = 0; i < nthreads; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].id = i;
		if (pthread_create(&w[i].tid, NULL, reader, &w[i])) {
			fprintf(stderr, "sysctlread: cannot create thread %d\n", i);
			return 1;
		}
	}
	sleep(secs);
	stop = 1;
	for (i = 0; i < nthreads; i++) {
		pthread_join(w[i].tid, NULL);
		reads += w[i].reads;
		errors += w[i].errors;
	}
	t = now() - t0;
	printf("HAZPTR-SYSCTLREAD threads=%d secs=%.2f reads=%ld reads_per_s=%.1f errors=%d\n",
	       nthreads, t, reads, reads / t, errors);
	return errors ? 1 : 0;
}
