"""The frontier record: what the board keeps for each empty cell touching a tile.

A record is a tuple indexed by these fields. Axis 0 runs along a row (left/right), axis 1
along a column; on each side of the cell, the run of tiles there: its length, the mask of
its tile types and the mask of the types compatible with all of them. That is all any rule
needs: a tile fits a cell iff it is compatible with the runs on each side, and a placement
grows a run cell by cell.
"""

from __future__ import annotations

FIT_H, FIT_V, LEN_H, LEN_V = 0, 1, 2, 3  # fit per axis; length of the line a tile here makes
N_L, T_L, C_L = 4, 5, 6  # run to the left: length, tile mask, compatible mask
N_R, T_R, C_R = 7, 8, 9
N_U, T_U, C_U = 10, 11, 12
N_D, T_D, C_D = 13, 14, 15
