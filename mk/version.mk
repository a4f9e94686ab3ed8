# mk/version.mk - VERSION (one line, the project's version) reaches every
# binary as -DADA_VERSION (the Makefile's BASE flags). Make does not track
# flags, so what compiles the version in is rebuilt when the file changes:
# the objects whose source names ADA_VERSION, and the tests that do.

VERSION_SRCS  := $(shell grep -l ADA_VERSION /dev/null $(wildcard runtime/*.c mcount/*.c symbolize/*.c \
                   cc-wrapper/*.c ctl/*.c))
VERSION_TESTS := $(shell grep -l ADA_VERSION /dev/null $(wildcard tests/*/test_*.c))

$(VERSION_SRCS:%.c=$(B)/%.o) $(VERSION_SRCS:%.c=$(B)/t/%.o) $(VERSION_TESTS:%.c=$(B)/%): VERSION
