"""Moved to the qwirkle_env.rows package: this path warns and forwards for one release."""

from .moved import forward

__getattr__ = forward(
    __name__,
    "qwirkle_env.rows.position",
)
