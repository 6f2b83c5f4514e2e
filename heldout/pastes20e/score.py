"""Score ``envcheck explain --json --no-detect`` on the pastes20e sets: the pastes20d scorer, which reads any
folder of that layout (``labels.txt``: ``FILE LABEL``, and a ``.facts.json`` beside each paste).

    python3 heldout/pastes20e/score.py heldout/pastes20e tests/data/pastes/pastes20e
"""

import os
import runpy

if __name__ == "__main__":  # sys.argv (the folders) goes through unchanged
    runpy.run_path(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pastes20d", "score.py"),
                   run_name="__main__")
