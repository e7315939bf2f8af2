"""The print kit: the board and both tile sets as a PDF at exact physical size, or as PNGs with a pixel map.

Everything is drawn from ``vision.artwork`` (its shapes, its ``TileGeometry``), so the printed kit, the
synthetic camera and the tile reader share one geometry. Modules: ``sheets`` (paper sizes, splitting the
board over sheets), ``page`` (a PDF page in mm and the shapes drawn on it), ``instructions`` (the first
page), ``pdf`` (``write_pdf``) and ``png`` (``write_png_set``, ``board_map``, ``sheet_image``).
"""

from thoughtwave.kit.page import TILE_BLEED_MM, TILE_GAP_MM
from thoughtwave.kit.pdf import KitSummary, write_pdf
from thoughtwave.kit.png import SHEET_QUIET_MM, board_map, sheet_image, write_png_set
from thoughtwave.kit.sheets import GLUE_MM, PAPER_MM, PRINT_MARGIN_MM, Progress, SheetPlan, plan_board_sheets, tile_set

__all__ = [
    "GLUE_MM", "PAPER_MM", "PRINT_MARGIN_MM", "SHEET_QUIET_MM", "TILE_BLEED_MM", "TILE_GAP_MM", "KitSummary",
    "Progress", "SheetPlan", "board_map", "plan_board_sheets", "sheet_image", "tile_set", "write_pdf",
    "write_png_set",
]
