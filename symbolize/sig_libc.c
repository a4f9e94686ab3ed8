/* sig_libc.c - the C library's common functions' parameters, for where the
 * library has no DWARF of its own (a Debian libc without its debug
 * package; the per-CPU string functions, written in assembly, have none
 * even with it): "strlen(s="abc") = 3" instead of six registers.
 *
 * Each line is a prototype in a small notation, parsed into a signature
 * (sig.h) the first time it is asked for: the return kind, the name, then
 * each parameter as kind and name. Kinds: v void, i int, I unsigned int,
 * l long (ssize_t, off_t), L unsigned long (size_t), p a pointer, s a char
 * pointer (its text where the record holds it), d double, f float, c a char
 * passed as int; "..." after the last for a variadic function. Only
 * parameters in registers are listed (none here passes more than six).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sig.h"

static const char *const protos[] = {
	"p malloc L size", "p calloc L nmemb L size", "p realloc p ptr L size", "v free p ptr",
	"p aligned_alloc L alignment L size", "i posix_memalign p memptr L alignment L size",
	"L strlen s s", "L strnlen s s L maxlen", "i strcmp s s1 s s2", "i strncmp s s1 s s2 L n",
	"i strcasecmp s s1 s s2", "i strncasecmp s s1 s s2 L n", "p strcpy p dest s src",
	"p strncpy p dest s src L n", "p stpcpy p dest s src", "p strcat p dest s src",
	"p strncat p dest s src L n", "s strdup s s", "s strndup s s L n", "s strchr s s c c",
	"s strrchr s s c c", "s strchrnul s s c c", "s strstr s haystack s needle",
	"s strpbrk s s s accept", "L strspn s s s accept", "L strcspn s s s reject",
	"s strtok p str s delim", "s strerror i errnum", "p memcpy p dest p src L n",
	"p mempcpy p dest p src L n", "p memmove p dest p src L n", "p memset p s c c L n",
	"i memcmp p s1 p s2 L n", "p memchr p s c c L n", "p memrchr p s c c L n",
	"i open s pathname i flags ...", "i openat i dirfd s pathname i flags ...",
	"i close i fd", "l read i fd p buf L count", "l write i fd p buf L count",
	"l pread i fd p buf L count l offset", "l pwrite i fd p buf L count l offset",
	"l lseek i fd l offset i whence", "i dup i oldfd", "i dup2 i oldfd i newfd",
	"i pipe p pipefd", "i unlink s pathname", "i mkdir s pathname I mode",
	"i access s pathname i mode", "i stat s pathname p statbuf", "i fstat i fd p statbuf",
	"p fopen s pathname s mode", "p fdopen i fd s mode", "i fclose p stream",
	"L fread p ptr L size L nmemb p stream", "L fwrite p ptr L size L nmemb p stream",
	"i fputs s s p stream", "i puts s s", "i fputc c c p stream", "i putc c c p stream",
	"i putchar c c", "i fgetc p stream", "i getc p stream", "s fgets p s i size p stream",
	"i fflush p stream", "i printf s format ...", "i fprintf p stream s format ...",
	"i sprintf p str s format ...", "i snprintf p str L size s format ...",
	"i vfprintf p stream s format p ap", "i vsnprintf p str L size s format p ap",
	"i sscanf s str s format ...", "i fileno p stream", "i isatty i fd",
	"s getenv s name", "i setenv s name s value i overwrite", "i unsetenv s name",
	"i atoi s nptr", "l atol s nptr", "l strtol s nptr p endptr i base",
	"L strtoul s nptr p endptr i base", "l strtoll s nptr p endptr i base",
	"L strtoull s nptr p endptr i base", "d strtod s nptr p endptr", "v exit i status",
	"v _exit i status", "v abort", "i atexit p function", "v qsort p base L nmemb L size p compar",
	"p bsearch p key p base L nmemb L size p compar", "i pthread_create p thread p attr p start_routine p arg",
	"i pthread_join p thread p retval", "i pthread_mutex_lock p mutex", "i pthread_mutex_unlock p mutex",
	"i pthread_mutex_trylock p mutex", "i pthread_cond_wait p cond p mutex",
	"i pthread_cond_signal p cond", "i pthread_cond_broadcast p cond", "i pthread_once p once_control p init_routine",
	"i clock_gettime i clockid p tp", "i gettimeofday p tv p tz", "l time p tloc",
	"i nanosleep p req p rem", "i usleep I usec", "I sleep I seconds", "i fork", "i vfork",
	"i execve s pathname p argv p envp", "i execvp s file p argv", "i waitpid i pid p wstatus i options",
	"i kill i pid i sig", "i raise i sig", "p signal i signum p handler",
	"i sigaction i signum p act p oldact", "p mmap p addr L length i prot i flags i fd l offset",
	"i munmap p addr L length", "i mprotect p addr L len i prot", "i socket i domain i type i protocol",
	"i connect i sockfd p addr I addrlen", "i bind i sockfd p addr I addrlen", "i listen i sockfd i backlog",
	"i accept i sockfd p addr p addrlen", "l send i sockfd p buf L len i flags",
	"l recv i sockfd p buf L len i flags", "i poll p fds L nfds i timeout",
	"i epoll_wait i epfd p events i maxevents i timeout", "i select i nfds p readfds p writefds p exceptfds p timeout",
	"p dlopen s filename i flags", "p dlsym p handle s symbol", "i dlclose p handle",
	"d sqrt d x", "d pow d x d y", "d exp d x", "d log d x", "d sin d x",
	"d cos d x", "d floor d x", "d ceil d x", "d fabs d x", "f sqrtf f x", "f powf f x f y",
};
#define NPROTOS (sizeof(protos) / sizeof(protos[0]))

static struct ada_sig *parsed[NPROTOS];
static bool tried[NPROTOS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* views open processes in threads */

/* One kind letter into v: its kind, size and signedness. */
static bool kind_of(char k, struct sig_value *v)
{
	static const struct {
		char k;
		uint8_t kind, size;
	} kinds[] = { { 'v', SIG_VOID, 0 },    { 'i', SIG_SIGNED, 4 },   { 'I', SIG_UNSIGNED, 4 },
		      { 'l', SIG_SIGNED, 8 },  { 'L', SIG_UNSIGNED, 8 }, { 'p', SIG_POINTER, 8 },
		      { 's', SIG_STRING, 8 },  { 'd', SIG_FLOAT, 8 },    { 'f', SIG_FLOAT, 4 },
		      { 'c', SIG_CHAR, 4 } };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].k == k) {
			v->kind = kinds[i].kind;
			v->size = kinds[i].size;
			return true;
		}
	return false;
}

/* A prototype's words ("p memcpy p dest p src L n") as a signature whose
 * parameters are placed by the ABI, integers in rdi..r9 and floats in
 * xmm0-7 in their orders; NULL if out of memory. */
static struct ada_sig *parse(const char *proto)
{
	char *words = strdup(proto), *save = NULL, *w;
	struct ada_sig *sig = calloc(1, sizeof(*sig) + 6 * sizeof(sig->params[0]));
	unsigned gpr = 0, sse = 0;

	if (!words || !sig)
		goto fail;
	w = strtok_r(words, " ", &save);
	if (!w || !kind_of(w[0], &sig->ret))
		goto fail;
	sig->ret.loc = sig->ret.kind == SIG_VOID ? LOC_NONE : sig->ret.kind == SIG_FLOAT ? LOC_SSE : LOC_GPR;
	strtok_r(NULL, " ", &save); /* the name */
	while ((w = strtok_r(NULL, " ", &save))) {
		struct sig_value *v = &sig->params[sig->nparams];
		char *name;

		if (!strcmp(w, "...")) {
			sig->variadic = true;
			break;
		}
		if (sig->nparams == 6 || !kind_of(w[0], v) || !(name = strtok_r(NULL, " ", &save)) ||
		    !(v->name = strdup(name)))
			goto fail;
		v->loc = v->kind == SIG_FLOAT ? LOC_SSE : LOC_GPR;
		v->reg = (uint8_t)(v->kind == SIG_FLOAT ? sse++ : gpr++);
		sig->nparams++;
	}
	sig->builtin = true;
	free(words);
	return sig;
fail:
	free(words);
	if (sig)
		sig->builtin = false;
	ada_sig_free(sig);
	return NULL;
}

/* The prototype's name: its second word. */
static bool named(const char *proto, const char *name)
{
	const char *p = strchr(proto, ' ');
	size_t n = strlen(name);

	return p && !strncmp(p + 1, name, n) && (p[1 + n] == ' ' || p[1 + n] == '\0');
}

/* Whether module (a basename) is the C library or one of its parts. */
static bool libc_module(const char *module)
{
	static const char *const libs[] = { "libc.so", "libm.so", "libpthread.so", "libdl.so" };

	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (!strncmp(module, libs[i], strlen(libs[i])))
			return true;
	return false;
}

const struct ada_sig *sig_libc(const char *name, const char *module)
{
	struct ada_sig *sig = NULL;

	if (!name || !module || !libc_module(module))
		return NULL;
	for (size_t i = 0; i < NPROTOS; i++) {
		if (!named(protos[i], name))
			continue;
		pthread_mutex_lock(&lock);
		if (!tried[i]) {
			tried[i] = true;
			parsed[i] = parse(protos[i]);
		}
		sig = parsed[i];
		pthread_mutex_unlock(&lock);
		break;
	}
	return sig;
}
