"""The firmware bridge: the serial link to the optional sensor and LED board.

* ``cobs``, ``crc``, ``messages``, ``codec`` — pure byte codecs: typed messages to
  frames and a parser back (docs/protocol.md);
* ``transport`` — the serial port (the only module importing pyserial);
* ``protocol`` — ``BoardLink``: handshake, sequence checks, snapshots, resends;
* ``bridge`` — ``SensorBridge``: a reader thread that reconnects with back-off and
  delivers ``TableChanged`` events carrying ``engines.observation.Observation``\\ s;
* ``layouts`` (with ``layouts.json``) — positions and calibration per game;
* ``device``, ``simulator`` — the board's side, and a simulated board on a pty;
* ``firmware/`` — the reference firmware in C.
"""
