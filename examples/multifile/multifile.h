/* multifile.h - what the three files of the multifile example share. */
#ifndef MULTIFILE_H
#define MULTIFILE_H

/* vec.c, built into libvec.a */
long vec_sum(const int *v, int n);
int vec_max(const int *v, int n);

/* fib.c */
long fib(int n);

#endif
