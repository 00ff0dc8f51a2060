/*
 * SPDX-License-Identifier: GPL-2.0
 *
 * The rounds of IPIs that concurrent callers of hazptr_barrier_asym()
 * share (kernel/hazptr.c, patch 27), for spin: can a caller return before
 * a round of IPIs whose every handler ran after its store A has completed?
 * Checked with every interleaving of NCALLERS callers and the worker, each
 * calling again and again, the sequence wrapping around: a small model,
 * not a proof for any number of callers.  Run by scripts/model.sh, with
 * each MUTANT_* below (a bug that must be caught) and ASSERT_NO_SHARING
 * (which must fail too: callers do share).
 *
 * The model is sequentially consistent.  Its steps keep the order that
 * the C code gives them: the caller's store A and read of the sequence are
 * one step (its smp_mb() between them; splitting them passes too); the
 * start precedes the IPIs (the smp_mb() in hazptr_round_start()); the
 * mutex steps and the comparison are ordered by the mutex's acquire and
 * release; a round's IPIs are one step after its start, at the earliest
 * time a handler can run (IPI delivery and the handler's smp_mb()).  So
 * it checks the rule given that ordering, not the ordering itself: no
 * test here does (x86 keeps every order but store-to-load, and the native
 * harness's membarrier() IPIs are full barriers).
 *
 * Every caller whose store A precedes a round's IPI step is "hit" by the
 * round, and is "covered" once the round has completed (on_each_cpu_cond()
 * with wait=true returned).  The property: a caller returns covered.
 *
 * Sharers compare the sequence with their snapshot under the mutex, which
 * the owner drops after the round has completed, so the order of done()
 * and the end in round() does not matter here (swapping them passes); it
 * would for a reader of the sequence that did not take the mutex.
 */

#define NCALLERS	2
#define W		NCALLERS	/* the worker's index */
#define NPROC		(NCALLERS + 1)
/*
 * hazptr_barrier_seq counts modulo SEQ_MOD, a power of two, and starts
 * near the wrap.  The sequence is even whenever the mutex is free, so a
 * caller's snapshot is 2 or 3 ahead of what it read, and the sequence only
 * grows: a comparison that wraps (a caller kept off the mutex for about
 * SEQ_MOD / 4 rounds) finds the snapshot not reached, and the caller runs
 * a round, one more, never one fewer.  That holds for SEQ_MOD >= 4 (it
 * fails at 2); checked at 16.
 */
#define SEQ_MOD		16
#define SEQ_FIRST	12

byte seq = SEQ_FIRST;	/* hazptr_barrier_seq */
bool mutex;		/* hazptr_barrier_mutex */

/* The property's bookkeeping, not the code's. */
bool waiting[NPROC];	/* its store A done, not yet returned */
bool covered[NPROC];	/* a round that hit it has completed */
typedef row { bool b[NPROC] };
row hit[NPROC];		/* hit[o].b[i]: o's running round hit i */

/* ULONG_CMP_GE() modulo SEQ_MOD. */
#ifdef MUTANT_PLAIN_GE
#define CMP_GE(a, b)	((a) >= (b))
#else
#define CMP_GE(a, b)	((((a) - (b) + SEQ_MOD) % SEQ_MOD) < SEQ_MOD / 2)
#endif

/* The handlers' smp_mb(), at the earliest: after the owner's smp_mb(). */
inline ipis(o)
{
	d_step {
		i = 0;
		do
		:: i < NPROC -> hit[o].b[i] = waiting[i]; i++
		:: else -> break
		od;
		printf("proc %d: IPIs, after the stores A of procs waiting now\n", o)
	}
}

/* on_each_cpu_cond(..., true) has returned: every handler has run. */
inline done(o)
{
	d_step {
		i = 0;
		do
		:: i < NPROC ->
			if
			:: hit[o].b[i] -> covered[i] = true; hit[o].b[i] = false
			:: else -> skip
			fi;
			i++
		:: else -> break
		od
	}
}

/* A round of the sequence, under the mutex (hazptr_round_run()). */
inline round(o)
{
#ifdef MUTANT_START_AFTER_IPIS
	ipis(o);
	seq = (seq + 1) % SEQ_MOD;
	printf("proc %d: round start, seq %d\n", o, seq);
#else
	/* hazptr_round_start(): the start; smp_mb() */
	seq = (seq + 1) % SEQ_MOD;
	printf("proc %d: round start, seq %d\n", o, seq);
	ipis(o);		/* hazptr_round_end(): on_each_cpu_cond() */
#endif
	done(o);		/* its smp_mb() */
	seq = (seq + 1) % SEQ_MOD;	/* the end */
	printf("proc %d: round end, seq %d\n", o, seq)
}

/* Return: forget the call. */
inline ret(me)
{
	d_step {
		printf("proc %d: returns, covered %d\n", me, covered[me]);
		assert(covered[me]);
		waiting[me] = false;
		covered[me] = false;
		i = 0;
		do
		:: i < NPROC -> hit[i].b[me] = false; i++
		:: else -> break
		od
	}
}

/* hazptr_synchronize_asym() -> hazptr_barrier_asym() */
proctype caller(byte me)
{
	byte snap, i;

again:	skip;
#ifdef MUTANT_READ_BEFORE_A
	d_step {
		snap = ((seq + 3) % SEQ_MOD) & (SEQ_MOD - 2);
		printf("proc %d: reads seq %d, snap %d\n", me, seq, snap)
	}
	d_step {
		waiting[me] = true;
		printf("proc %d: store A\n", me)
	}
#else
	/* store A; smp_mb(); the end of the first round to start after: */
	d_step {
		waiting[me] = true;
#ifdef MUTANT_INFLIGHT
		snap = ((seq + 2) % SEQ_MOD) & (SEQ_MOD - 2)
#else
		snap = ((seq + 3) % SEQ_MOD) & (SEQ_MOD - 2)
#endif
		;
		printf("proc %d: store A, reads seq %d, snap %d\n", me, seq, snap)
	}
#endif
	atomic { !mutex -> mutex = true };		/* mutex_lock() */
	if
	:: CMP_GE(seq, snap) ->				/* shared */
		printf("proc %d: shares, seq %d\n", me, seq);
#ifdef ASSERT_NO_SHARING
		assert(false);
#endif
		mutex = false
	:: else ->
		round(me);
		mutex = false
	fi;
	ret(me);
	goto again
}

/* The worker's barrier: hazptr_barrier_asym_worker(). */
proctype worker()
{
	byte i;

again:	skip;
	waiting[W] = true;		/* the queuers' stores A; smp_mb() */
	printf("proc %d: the worker, store A\n", W);
	if
	:: atomic { !mutex -> mutex = true };	/* mutex_trylock() */
		round(W);
		mutex = false
	:: mutex ->				/* it failed: a round of its own */
		printf("proc %d: trylock fails\n", W);
#ifdef MUTANT_WORKER_COUNTS
		seq = (seq + 1) % SEQ_MOD;
		ipis(W);
		done(W);
		seq = (seq + 1) % SEQ_MOD
#else
		ipis(W);
		done(W)
#endif
	fi;
	ret(W);
	goto again
}

init
{
	byte n;

	atomic {
		n = 0;
		do
		:: n < NCALLERS -> run caller(n); n++
		:: else -> break
		od;
		run worker()
	}
}
