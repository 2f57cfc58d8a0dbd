# SPDX-License-Identifier: GPL-2.0-only
"""Load one of scripts/ (a Python program with no .py suffix) as a module,
for the host tests that call its functions directly."""
import importlib.machinery
import importlib.util
import os

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def load_script(name):
    """Return scripts/<name> loaded as the module <name> ('-' as '_')."""
    modname = name.replace('-', '_')
    loader = importlib.machinery.SourceFileLoader(
        modname, os.path.join(TOP, 'scripts', name))
    spec = importlib.util.spec_from_loader(modname, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod
