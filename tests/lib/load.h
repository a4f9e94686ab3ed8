/* load.h - a busy machine for tests of concurrency: one spinning process per
 * core while the test runs, as a build or a test suite would load it. */
#ifndef TESTS_LIB_LOAD_H
#define TESTS_LIB_LOAD_H

/* Starts one busy child per online CPU (at least two); 0, or -errno. The
 * children die with the test process (PR_SET_PDEATHSIG) if load_stop is
 * never reached. */
int load_start(void);
/* Kills and reaps them. */
void load_stop(void);

#endif
