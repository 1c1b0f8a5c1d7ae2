"""``companion demo``: the whole companion at work, needing nothing but this machine.

Engine players of different strengths play a game (``script``); the table simulator
moves its last moves by hand, one illegal move tried and put back among them, and the
renderer films it into a video (``film``); the camera pipeline reads the video frame by
frame and the referee rules on what it reads (``chain``); the game is scored and
analysed, and a report is written (``report``). Before the film the demo calibrates
its table as a player does (``calibrate``), and the camera reads the film through that
profile. With a display the app opens on the film; without one the demo prints as it
goes.
"""

from companion.demo.base import NAMES as NAMES
from companion.demo.base import DemoError as DemoError
