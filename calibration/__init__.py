"""Calibration: check a camera and a printed board read well, and write the profile the reader uses."""
