/* demo.c - what `make demo` traces: a recursive-descent calculator.
 *
 * Two threads each evaluate one arithmetic expression with a small
 * recursive-descent parser (expr = term {+|- term}, term = factor {*|/
 * factor}, factor = number | "(" expr ")"). The call tree of each thread is
 * the parse tree of its expression: the parenthesis in "2*(3+4)" shows up as
 * parse_expr nested inside parse_factor, and the two identical terms "3" and
 * "4" fold into one "parse_term x2" line.
 *
 * The main thread prints both results after joining the workers:
 * "2*(3+4) = 14" and "1+2*3 = 7", exit status 0.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>

struct parser {
	const char *pos;
};

struct job {
	const char *text;
	pthread_t thread;
	int value;
};

static int parse_expr(struct parser *ps);

static int parse_number(struct parser *ps)
{
	int value = 0;

	while (isdigit((unsigned char)*ps->pos))
		value = value * 10 + (*ps->pos++ - '0');
	return value;
}

static int parse_factor(struct parser *ps)
{
	if (*ps->pos != '(')
		return parse_number(ps);

	ps->pos++; /* '(' */
	int value = parse_expr(ps);
	if (*ps->pos == ')')
		ps->pos++;
	return value;
}

static int parse_term(struct parser *ps)
{
	int value = parse_factor(ps);

	while (*ps->pos == '*' || *ps->pos == '/') {
		char op = *ps->pos++;
		int rhs = parse_factor(ps);

		value = op == '*' ? value * rhs : rhs ? value / rhs : 0;
	}
	return value;
}

static int parse_expr(struct parser *ps)
{
	int value = parse_term(ps);

	while (*ps->pos == '+' || *ps->pos == '-') {
		char op = *ps->pos++;
		int rhs = parse_term(ps);

		value = op == '+' ? value + rhs : value - rhs;
	}
	return value;
}

static void *evaluate(void *arg)
{
	struct job *job = arg;
	struct parser ps = { .pos = job->text };

	job->value = parse_expr(&ps);
	return NULL;
}

int main(void)
{
	struct job jobs[] = { { .text = "2*(3+4)" }, { .text = "1+2*3" } };
	size_t n = sizeof(jobs) / sizeof(jobs[0]);

	for (size_t i = 0; i < n; i++) {
		if (pthread_create(&jobs[i].thread, NULL, evaluate, &jobs[i]) != 0) {
			fprintf(stderr, "demo: pthread_create failed\n");
			return 1;
		}
	}
	for (size_t i = 0; i < n; i++)
		pthread_join(jobs[i].thread, NULL);

	for (size_t i = 0; i < n; i++)
		printf("%s = %d\n", jobs[i].text, jobs[i].value);
	return 0;
}
