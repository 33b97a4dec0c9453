# The README's commands: `make sheet` and `make test` set up what they need (the Debian
# packages of scripts/debian-packages.txt, through scripts/install-packages.sh) and run;
# `make install` / `make uninstall` put the command, its man page and completions in PREFIX.
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
# The Swift runtime is linked in, so the installed command needs only Debian's libraries.
RELEASE_FLAGS = -c release --static-swift-stdlib
RELEASE_BIN = .build/release/masonry
GENERATED = .build/share

BINDIR = $(DESTDIR)$(PREFIX)/bin
MANDIR = $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
# Debian's zsh reads /usr/local/share/zsh/site-functions, and /usr/share/zsh/vendor-completions for packages.
ZSHDIR = $(DESTDIR)$(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISHDIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

.PHONY: sheet test build packages test-packages install uninstall

## Render SampleImages/ into sheet.png.
sheet: build
	$(RELEASE_BIN) SampleImages -o sheet.png

## Run the whole test suite (browser, man page and completion tests included). Only what the suite
## runs is built: the test bundle (SwiftPM's product MasonryPackageTests), the command, and the cache
## tests' child process; not the bench and fuzz tools (`swift test` alone builds those too).
TEST_PRODUCTS = MasonryPackageTests masonry TileCacheProbe
test: test-packages
	for product in $(TEST_PRODUCTS); do $(SWIFT) build --product $$product || exit 1; done
	$(SWIFT) test --skip-build

build: packages
	$(SWIFT) build $(RELEASE_FLAGS) --product masonry

packages:
	scripts/install-packages.sh

test-packages:
	scripts/install-packages.sh --test

# Uses the release binary that `make build` or `make sheet` made (building it only when there is
# none), so `sudo make install` needs no Swift toolchain on root's PATH.
install: $(if $(wildcard $(RELEASE_BIN)),,build)
	mkdir -p $(GENERATED)
	$(RELEASE_BIN) --generate-manual > $(GENERATED)/masonry.1
	$(RELEASE_BIN) --generate-completion bash > $(GENERATED)/masonry.bash
	$(RELEASE_BIN) --generate-completion zsh > $(GENERATED)/_masonry
	$(RELEASE_BIN) --generate-completion fish > $(GENERATED)/masonry.fish
	install -d $(BINDIR) $(MANDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR)
	install -m 755 $(RELEASE_BIN) $(BINDIR)/masonry
	install -m 644 $(GENERATED)/masonry.1 $(MANDIR)/masonry.1
	install -m 644 $(GENERATED)/masonry.bash $(BASHDIR)/masonry
	install -m 644 $(GENERATED)/_masonry $(ZSHDIR)/_masonry
	install -m 644 $(GENERATED)/masonry.fish $(FISHDIR)/masonry.fish

uninstall:
	rm -f $(BINDIR)/masonry $(MANDIR)/masonry.1 $(BASHDIR)/masonry $(ZSHDIR)/_masonry $(FISHDIR)/masonry.fish
