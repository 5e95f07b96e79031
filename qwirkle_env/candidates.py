"""Moved to the qwirkle_env.rows package: this path warns and forwards for one release."""

from .moved import forward

__getattr__ = forward(
    __name__,
    "qwirkle_env.rows.columns",
    "qwirkle_env.rows.moverows",
    "qwirkle_env.rows.kernels",
    "qwirkle_env.rows.reference",
)
