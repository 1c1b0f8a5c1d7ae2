"""Fitting ShenShi's square network (:mod:`vision.appearance_net`) with PyTorch.

PyTorch is needed only here, to fit: it is the optional extra ``fit`` (``pip install
'companion[fit]'``). The fitted weights are written in the layout the reader runs with
numpy alone. The fit is deterministic from its seed on one thread: the same examples in
the same order give the same weights, bit for bit, with the same PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision import appearance_flat as flat
from vision.appearance_net import (
    ALTERNATIVES,
    BRANCHES,
    FRONT_H,
    FRONT_W,
    HIDDEN,
    LAYERS,
    TEMPERATURE,
    TOP,
    WIDTHS,
    Float32Array,
    SquareNetwork,
    network_values,
)
from vision.models import referee_schema

EPOCHS = 12
BATCH = 256
RATE = 2e-3
DECAY = 1e-4
"""The fit: passes over the examples, squares a step, the highest rate of a one-cycle
schedule, and AdamW's weight decay (chosen on the validation halls)."""


class FitError(RuntimeError):
    """The network cannot be fitted here (PyTorch is not installed)."""


def _torch() -> Any:
    try:
        import torch  # deferred: an optional extra, only to fit
    except ImportError:
        raise FitError(
            "fitting the square network needs PyTorch: pip install 'companion[fit]' "
            "(or fit without it: --networks 0)"
        ) from None
    return torch


def _module(torch: Any, channels: int) -> Any:
    nn, functional = torch.nn, torch.nn.functional

    class Branch(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            widths = (channels, *WIDTHS)
            for i, layer in enumerate(LAYERS):
                setattr(self, layer, nn.Conv2d(widths[i], widths[i + 1], 3, padding=1))

        def forward(self, x: Any) -> Any:
            x = functional.relu(self.c1(x))
            x = functional.relu(self.c2(x))
            x = functional.max_pool2d(x, 2, ceil_mode=True)
            return functional.relu(self.c3(x)).permute(0, 2, 3, 1).flatten(1)

    class Network(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.top, self.front = Branch(), Branch()
            cells = ((TOP + 1) // 2) ** 2 + ((FRONT_H + 1) // 2) * ((FRONT_W + 1) // 2)
            self.hidden = nn.Linear(cells * WIDTHS[-1], HIDDEN)
            self.heads = nn.ModuleList([nn.Linear(HIDDEN, a) for a in ALTERNATIVES])

        def forward(self, maps: Any) -> list[Any]:
            n, _, c = maps.shape
            top = maps[:, : TOP * TOP].reshape(n, TOP, TOP, c).permute(0, 3, 1, 2)
            front = maps[:, TOP * TOP :].reshape(n, FRONT_H, FRONT_W, c).permute(0, 3, 1, 2)
            hidden = functional.relu(self.hidden(torch.cat([self.top(top), self.front(front)], 1)))
            return [head(hidden) for head in self.heads]

    return Network()


def _layer_weights(layer: Any) -> tuple[Float32Array, Float32Array]:
    """A fitted convolution's or linear layer's weights and bias in the numpy readers'
    layout: a 3x3 kernel as (9 * in, out) in (row, column, channel) order, a linear
    layer's as (in, out)."""
    weight = layer.weight.detach().numpy()
    if weight.ndim == 4:  # (out, in, 3, 3)
        weight = weight.transpose(2, 3, 1, 0).reshape(-1, weight.shape[0])
    else:
        weight = weight.T
    return np.ascontiguousarray(weight, dtype=np.float32), layer.bias.detach().numpy().astype(
        np.float32
    )


def _weights(network: Any) -> dict[str, Float32Array]:
    """The fitted module's weights in :mod:`vision.appearance_net`'s layout."""
    out: dict[str, Float32Array] = {}
    for branch in BRANCHES:
        for layer in LAYERS:
            w, b = _layer_weights(getattr(getattr(network, branch), layer))
            out[f"{branch}.{layer}.w"], out[f"{branch}.{layer}.b"] = w, b
    out["hidden.w"], out["hidden.b"] = _layer_weights(network.hidden)
    for k, head in enumerate(network.heads):
        out[f"head{k}.w"], out[f"head{k}.b"] = _layer_weights(head)
    return out


def fit_network(
    maps: Float32Array,
    labels: NDArray[np.intp],
    seed: int,
    epochs: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Float32Array]:
    """One network fitted on ``maps`` (squares, points, channels) and ``labels``
    (squares, 3: each kind's alternative, -1 where it does not count): AdamW on batches
    of :data:`BATCH`, the rate on one cycle, on one thread, from ``seed``. Raises
    ``FitError`` without PyTorch."""
    torch = _torch()
    torch.manual_seed(seed)
    network = _module(torch, maps.shape[2])
    return _weights(_train(torch, network, maps, labels, seed, epochs, progress))


def _train(
    torch: Any,
    network: Any,
    maps: Float32Array,
    labels: NDArray[np.intp],
    seed: int,
    epochs: int | None,
    progress: Callable[[str], None] | None,
) -> Any:
    """``network`` (its outputs, one logits per column of ``labels``) fitted: AdamW on
    batches of :data:`BATCH`, the rate on one cycle, on one thread, from ``seed``."""
    epochs = EPOCHS if epochs is None else epochs
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        rng = np.random.default_rng(seed)
        optimiser = torch.optim.AdamW(network.parameters(), lr=RATE, weight_decay=DECAY)
        x = torch.from_numpy(np.ascontiguousarray(maps, dtype=np.float32))
        y = torch.from_numpy(np.asarray(labels, dtype=np.int64))
        n = len(x)
        schedule = torch.optim.lr_scheduler.OneCycleLR(
            optimiser, RATE, total_steps=epochs * ((n + BATCH - 1) // BATCH)
        )
        loss_of = torch.nn.functional.cross_entropy
        for epoch in range(epochs):
            order = rng.permutation(n)
            total = 0.0
            for start in range(0, n, BATCH):
                chosen = torch.from_numpy(order[start : start + BATCH])
                outputs = network(x[chosen])
                loss = sum(
                    loss_of(o, y[chosen, k], ignore_index=-1)
                    for k, o in enumerate(outputs)
                    if bool((y[chosen, k] >= 0).any())
                )
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                schedule.step()
                total += float(loss.detach()) * len(chosen)
            if progress is not None:
                progress(f"network {seed}: pass {epoch + 1}/{epochs}, loss {total / n:.4f}")
        network.eval()
        return network
    finally:
        torch.set_num_threads(threads)


def fit_square_network(
    game: str,
    examples: Sequence[tuple[Float32Array, NDArray[np.intp]]],
    members: int,
    progress: Callable[[str], None] | None = None,
) -> SquareNetwork:
    """``members`` networks fitted on ``examples`` (per picture: every square's maps and
    labels, see ``vision.evaluate.appearance.iter_square_examples``) from seeds 0, 1,
    ..., averaged, with the kinds' temperatures :data:`TEMPERATURE`. Raises
    ``FitError`` without PyTorch."""
    maps = np.concatenate([m for m, _ in examples]).astype(np.float32)
    labels = np.concatenate([y for _, y in examples])
    schema = referee_schema(game)
    square = next(e for e in schema.elements if e.endswith(" monk")).split(" ", 1)[0]
    fitted = [fit_network(maps, labels, seed, progress=progress) for seed in range(members)]
    provenance = {
        "squares": int(np.sum((labels >= 0).any(axis=1))),
        "members": members,
        "epochs": EPOCHS,
    }
    return SquareNetwork(fitted, TEMPERATURE, network_values(schema, square), provenance)


def _flat_module(torch: Any, channels: int, alternatives: int) -> Any:
    nn, functional = torch.nn, torch.nn.functional

    class Network(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            widths = (channels, *flat.WIDTHS)
            for k in range(len(flat.WIDTHS)):
                setattr(self, f"c{k + 1}", nn.Conv2d(widths[k], widths[k + 1], 3, padding=1))
            side = (flat.GRID + 3) // 4
            self.hidden = nn.Linear(side * side * flat.WIDTHS[-1], flat.HIDDEN)
            self.head = nn.Linear(flat.HIDDEN, alternatives)

        def forward(self, maps: Any) -> list[Any]:
            n, _, c = maps.shape
            x = maps.reshape(n, flat.GRID, flat.GRID, c).permute(0, 3, 1, 2)
            x = functional.relu(self.c1(x))
            x = functional.max_pool2d(functional.relu(self.c2(x)), 2, ceil_mode=True)
            x = functional.max_pool2d(functional.relu(self.c3(x)), 2, ceil_mode=True)
            hidden = functional.relu(self.hidden(x.permute(0, 2, 3, 1).flatten(1)))
            return [self.head(hidden)]

    return Network()


def _flat_weights(network: Any) -> dict[str, Float32Array]:
    """The fitted module's weights in :mod:`vision.appearance_flat`'s layout."""
    out: dict[str, Float32Array] = {}
    for name in (*(f"c{k}" for k in range(1, len(flat.WIDTHS) + 1)), "hidden", "head"):
        out[f"{name}.w"], out[f"{name}.b"] = _layer_weights(getattr(network, name))
    return out


def fit_flat_network(
    maps: Float32Array,
    labels: NDArray[np.intp],
    values: Sequence[Any],
    members: int,
    temperature: float = flat.TEMPERATURE,
    epochs: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> flat.FlatNetwork:
    """``members`` flat square networks (:mod:`vision.appearance_flat`) fitted on ``maps``
    (squares, points, channels) and ``labels`` (each square's alternative among
    ``values``, -1 where it does not count) from seeds 0, 1, ..., averaged. Raises
    ``FitError`` without PyTorch."""
    torch = _torch()
    fitted = []
    for seed in range(members):
        torch.manual_seed(seed)
        network = _flat_module(torch, maps.shape[2], len(values))
        column = np.asarray(labels, dtype=np.intp)[:, None]
        trained = _train(torch, network, maps, column, seed, epochs, progress)
        fitted.append(_flat_weights(trained))
    provenance = {
        "squares": int(np.sum(np.asarray(labels) >= 0)),
        "members": members,
        "epochs": EPOCHS if epochs is None else epochs,
    }
    return flat.FlatNetwork(fitted, temperature, [str(v) for v in values], provenance)
