"""The package tests (make deb-test) use the end-to-end helpers."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "e2e"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
