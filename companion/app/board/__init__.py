"""The digital board: the printed board of each game (``scene``, ``glyphs``), which
layout is drawn (``maps``), answering a question by tapping (``answer``) and the Kivy
widget that draws it all (``widget``). All but ``widget`` are free of Kivy."""
