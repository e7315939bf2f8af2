"""Pixels to board state: the printed artwork, camera sources, board finder, tile reader,
stabiliser and the synthetic scene renderer."""
