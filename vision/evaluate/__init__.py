"""``companion bench vision``: how well the camera reads the table, on rendered pictures
with known truth.

For each game with a board model, a fixed-seed held-out set of tables (states after
random engine play of several lengths, from a setup drawn anew for each table: ShenShi's
tiles on the marked squares) is photographed by the renderer
(:mod:`vision.synth`) at three difficulty levels:

- **easy**: camera 70-90 degrees above the table, daylight, little noise;
- **medium**: 50-90 degrees, daylight, warm or dim light, noise, some blur, JPEG;
- **hardest**: down to 35 degrees, the "hardest" light (warm lamp one side, cold window
  the other, one side four times darker) turned any way, strong noise, blur, JPEG,
  glare, clutter and, in half the pictures, a hand over the board.

Each picture is read with its exact view (:func:`vision.view.truth_view`): this bench
measures reading; locating the board has its own bench. For every element the truth
can show (a hand hides less than half of it) the reading is *right*, *wrong* or an
*abstention* (unknown: not an error, counted apart). Elements a hand hides in the truth
are left out and counted as *hidden*. A board is *perfect* when no element is wrong.

Speed is the reader's time per frame on one core, at 1280x720 and 1920x1080, with the
board's view unchanged from the frame before (as when the camera stands still), with
and without the stillness detector.

Rendering takes one to several seconds a picture (the full set of 270 pictures and 18
for timing took about 45 minutes on a shared two-core machine): the pictures are kept
under ``--cache`` (default ``~/.cache/companion/bench-vision``), so a second run only
reads (under a minute).
"""

LEVELS = ("easy", "medium", "hardest")
"""The difficulty levels, from the easiest (see ``sets.LEVEL_SPECS``)."""
LOCATED_FRAMES = 10
"""Pictures per game at the hardest level read through the Locator, unless asked."""
