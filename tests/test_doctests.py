"""The docstring examples in the engine are part of its documentation: every one of them runs and passes."""

import doctest
import importlib
import pkgutil

import pytest

import thoughtwave.engine

MODULES = sorted(m.name for m in pkgutil.iter_modules(thoughtwave.engine.__path__, "thoughtwave.engine."))


@pytest.mark.parametrize("name", ["thoughtwave.engine", *MODULES])
def test_docstring_examples_pass(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"


def test_the_engine_has_examples_to_run():
    attempted = sum(doctest.testmod(importlib.import_module(name), verbose=False).attempted for name in MODULES)
    assert attempted >= 10
