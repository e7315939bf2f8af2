# The two front-door commands. Both set up .venv on first use (and again when pyproject.toml changes).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8080

.PHONY: run test setup imports catalogs clean

setup: $(STAMP)

# The catalogs are compiled at install (setup.py), so an edited .po re-runs the install.
$(STAMP): pyproject.toml setup.py $(wildcard thoughtwave/i18n/locale/*/LC_MESSAGES/*.po)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/thoughtwave serve --demo --host $(HOST) --port $(PORT)

test: $(STAMP)
	$(BIN)/ruff check .
	@$(MAKE) --no-print-directory imports
	$(BIN)/pytest -q

# The import contracts of pyproject.toml, checked on an installed copy: the design's folders are
# thoughtwave.* only once installed, and the copy is also what a wheel would hold.
IMPORTS := $(VENV)/import-check
imports: $(STAMP)
	@rm -rf $(IMPORTS)
	@$(BIN)/python -m pip install --quiet --no-deps --no-compile --target $(IMPORTS) . >/dev/null 2>&1 \
		|| { echo "make imports: the package does not build; run: $(BIN)/python -m pip wheel --no-deps ." >&2; exit 1; }
	cd $(IMPORTS) && PYTHONPATH=. $(CURDIR)/$(BIN)/lint-imports --config $(CURDIR)/pyproject.toml --no-cache

# Extract every message (babel.cfg) and merge the new ones into the French and German catalogs; translate
# what `pybabel update` leaves empty or fuzzy, then `make setup` compiles them.
POT := build/messages.pot
catalogs: $(STAMP)
	@mkdir -p build
	$(BIN)/pybabel extract -F babel.cfg --no-location --sort-output -k gettext -k ngettext:1,2 -k pgettext:1c,2 \
		-o $(POT) .
	$(BIN)/pybabel update -i $(POT) -d thoughtwave/i18n/locale --no-fuzzy-matching --ignore-obsolete \
		--width 120

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
