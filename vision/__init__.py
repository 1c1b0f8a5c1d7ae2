"""The camera: find the board in a picture, read what stands on it, and draw tables.

- :mod:`vision.pipeline` runs frames through finding the board (:mod:`vision.locate`,
  :mod:`vision.markers`), waiting for stillness (:mod:`vision.stillness`) and reading;
- :mod:`vision.appearance` reads by the player's own set's appearance (calibrated);
  :mod:`vision.read` reads by the board's default colours when a set is not calibrated;
- :mod:`vision.table_profile` gathers what a calibration profile tells the camera;
- :mod:`vision.synth` renders photograph-like tables for tests and benchmarks.
"""
