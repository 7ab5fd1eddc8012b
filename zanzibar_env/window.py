"""An on-screen window for ``render_mode="human"``: shows the same frames as ``rgb_array`` (via pygame).

Usage from an env's ``render()``::

    if self.window is None:
        self.window = Window(fps=self.metadata["render_fps"])
    self.window.show(render_rgb(self.game, self.seat))

pygame is imported only when a window is first shown; on a machine without a display set
``SDL_VIDEODRIVER=dummy``.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class Window:
    """A pygame window that displays ``(H, W, 3)`` uint8 frames at most ``fps`` times a second."""

    def __init__(self, fps: float = 4.0, title: str = "Zanzibar") -> None:
        if not fps > 0:
            raise ValueError(f"fps must be positive, got {fps!r}")
        self.fps = fps
        self.title = title
        self._pygame: Any = None
        self._screen: Any = None
        self._clock: Any = None

    def show(self, frame: np.ndarray) -> None:
        """Display one frame (opening the window on first use) and keep the window responsive."""
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"a frame must be (H, W, 3) uint8, got {frame.shape} {frame.dtype}")
        pg = self._open(frame.shape[1], frame.shape[0])
        surface = pg.surfarray.make_surface(np.ascontiguousarray(frame.swapaxes(0, 1)))
        self._screen.blit(surface, (0, 0))
        pg.event.pump()
        pg.display.flip()
        self._clock.tick(self.fps)

    def pixels(self) -> np.ndarray:
        """What the window shows now, as ``(H, W, 3)`` uint8 (for tests)."""
        if self._screen is None:
            raise RuntimeError("the window has not shown a frame yet")
        return np.asarray(self._pygame.surfarray.array3d(self._screen)).swapaxes(0, 1)

    def close(self) -> None:
        """Close the window (a later :meth:`show` opens a new one)."""
        if self._pygame is not None and self._screen is not None:
            self._pygame.display.quit()
        self._screen = None

    def _open(self, width: int, height: int) -> Any:
        if self._pygame is None:
            try:
                import pygame
            except ImportError as e:  # pragma: no cover - pygame is a declared dependency of the dev setup
                raise RuntimeError(f"render_mode='human' needs pygame: {e}") from None
            self._pygame = pygame
        pg = self._pygame
        if self._screen is None or self._screen.get_size() != (width, height):
            pg.display.init()
            self._screen = pg.display.set_mode((width, height))
            pg.display.set_caption(self.title)
            self._clock = pg.time.Clock()
        return pg
