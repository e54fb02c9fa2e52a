# Installs swget, its man page and its shell completions (the generated, committed files in
# man/ and completions/; scripts/generate-docs regenerates them).
#   make install [PREFIX=/usr/local] [DESTDIR=/staging]
#   make uninstall [PREFIX=/usr/local] [DESTDIR=/staging]
# The release binary is built first when missing or older than the sources.

PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
SWIFT_BUILD_FLAGS ?=
INSTALL ?= install

BINDIR = $(PREFIX)/bin
MAN1DIR = $(PREFIX)/share/man/man1
BASH_COMPLETION_DIR = $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETION_DIR = $(PREFIX)/share/zsh/site-functions
FISH_COMPLETION_DIR = $(PREFIX)/share/fish/vendor_completions.d

BINARY = .build/release/swget
SOURCES = Package.swift $(shell find Sources -type f 2>/dev/null)

.PHONY: all build install uninstall

all: build

build: $(BINARY)

$(BINARY): $(SOURCES)
	SWIFT="$(SWIFT)" scripts/build-release $(SWIFT_BUILD_FLAGS)
	@touch $@

install: $(BINARY)
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MAN1DIR)" "$(DESTDIR)$(BASH_COMPLETION_DIR)" \
		"$(DESTDIR)$(ZSH_COMPLETION_DIR)" "$(DESTDIR)$(FISH_COMPLETION_DIR)"
	$(INSTALL) -m 755 $(BINARY) "$(DESTDIR)$(BINDIR)/swget"
	$(INSTALL) -m 644 man/swget.1 "$(DESTDIR)$(MAN1DIR)/swget.1"
	$(INSTALL) -m 644 completions/swget.bash "$(DESTDIR)$(BASH_COMPLETION_DIR)/swget"
	$(INSTALL) -m 644 completions/_swget "$(DESTDIR)$(ZSH_COMPLETION_DIR)/_swget"
	$(INSTALL) -m 644 completions/swget.fish "$(DESTDIR)$(FISH_COMPLETION_DIR)/swget.fish"

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/swget" "$(DESTDIR)$(MAN1DIR)/swget.1" \
		"$(DESTDIR)$(BASH_COMPLETION_DIR)/swget" "$(DESTDIR)$(ZSH_COMPLETION_DIR)/_swget" \
		"$(DESTDIR)$(FISH_COMPLETION_DIR)/swget.fish"
