"""A differentiated function's forward shared with the same forward computed before it.

MindSpore's train cells (`nn.TrainOneStepCell` as MindSpore writes it, and the model zoo's own: CRNN's, WGAN's, the
Transformer's) compute the loss, then its gradient: `loss = self.network(*inputs)` and then
`grads = self.grad(self.network, weights)(*inputs, sens)`. Traced, the network's equations appear twice: inlined for
the loss, and in the `grad` equation's nested graph, whose value comes out of the backend's vjp beside the gradients.
XLA does not merge the two (the vjp's forward lowers to other HLO: a ReLU's derivative mask, a custom_vjp's
residuals), so every step ran the network's forward twice: the zoo's CRNN (batch 4, 32 x 100) computed each of its
convolutions' forwards twice (session 36's profile).

Here the nested graph is replayed over the equations before the `grad`: each nested equation whose primitive,
attributes and (mapped) inputs equal an earlier outer equation's stands for it (the key of common-subexpression
elimination). A nested output found that way is an outer value the `grad` equation also computes: its uses after the
`grad` read the `grad` equation's output instead, and dead-code elimination drops the outer forward once nothing
else reads it. Values are unchanged (equal equations of equal inputs; random draws take their key as an input, so
two draws never match); equations with an effect stay (only pure ones die).
"""

from __future__ import annotations

from kiln._compiler.ir.graph import Eqn, Graph, Var
from kiln._compiler.passes.cse import share_key


def _alias(e: Eqn, resolve) -> Var | None:
    """The Var whose value `e`'s one output carries unchanged (an Identity's input; an Assign's value when it needs
    no broadcast or cast), through `resolve`; None for any other equation."""
    if e.name == "Identity" and len(e.inputs) == 1:
        x = e.inputs[0]
    elif e.name == "Assign" and len(e.inputs) == 2:
        x = e.inputs[1]
    else:
        return None
    out = e.outputs[0]
    if type(x) is not Var or x.shape != out.shape or x.dtype != out.dtype:
        return None
    return resolve(x)


def _outer_values(e: Eqn, earlier: dict, resolve) -> dict:
    """{outer Var: index of the `grad` equation `e`'s output with the same value} for the nested graph's outputs
    that equal outer equations' outputs (`earlier`: key -> outputs of the equations before `e`)."""
    nested: Graph = e.params["graph"]
    n_diff, n_sens = e.params["n_diff"], e.params.get("n_sens", 0)
    bound = [*e.inputs[:n_diff], *e.inputs[n_diff + n_sens :]]
    if len(bound) != len(nested.invars):
        return {}
    names = {v: x for v, x in zip(nested.invars, bound, strict=True) if type(v) is Var}
    matched: set = set()
    for ne in nested.eqns:
        inputs = [resolve(names.get(x, x)) if type(x) is Var else x for x in ne.inputs]
        key = share_key(ne, inputs)
        found = earlier.get(key) if key is not None else None
        if found is not None:
            names.update(zip(ne.outputs, found, strict=True))
            matched.update(ne.outputs)
    values = {}
    for index, out in enumerate(nested.outvars):
        if type(out) is Var and out in matched:
            values.setdefault(names[out], index)
    return values


def share_grad_forward(graph: Graph) -> int:
    """Let uses after each `grad` equation read its forward's outputs where the same values were computed before it.

    Returns:
        How many equations (and the graph's outputs, counted as one) were given a `grad` equation's output.
    """
    earlier: dict = {}
    aliases: dict = {}  # outer Var -> the Var whose value it carries unchanged (Identity, a state write's value)

    def resolve(x):
        return aliases.get(x, x) if type(x) is Var else x

    changed = 0
    for position, e in enumerate(graph.eqns):
        if e.prim == "grad":
            values = _outer_values(e, earlier, resolve)
            mapping = {v: e.outputs[i] for v, i in values.items()}
            for later in graph.eqns[position + 1 :]:
                if any(type(x) is Var and x in mapping for x in later.inputs):
                    later.inputs = [mapping.get(x, x) if type(x) is Var else x for x in later.inputs]
                    changed += 1
            if any(type(x) is Var and x in mapping for x in graph.outvars):
                graph.outvars = [mapping.get(x, x) if type(x) is Var else x for x in graph.outvars]
                changed += 1
        same = _alias(e, resolve)
        if same is not None:
            aliases[e.outputs[0]] = same
        key = share_key(e, [resolve(x) for x in e.inputs])
        if key is not None:
            earlier.setdefault(key, e.outputs)
    return changed
