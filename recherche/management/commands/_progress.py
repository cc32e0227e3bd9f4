import sys
from typing import Any

from tqdm import tqdm


def progress_bar(total: int, desc: str, **kwargs: Any) -> tqdm:
    """A progress bar on stderr; quiet when stderr is not a terminal (CI, logs)."""
    return tqdm(total=total, desc=desc, unit=" St.", file=sys.stderr, disable=None, **kwargs)
