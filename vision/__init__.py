"""Pixels to board state: the printed artwork and its tile geometry, camera sources, board finder, tile
reader, stabiliser and watcher."""
