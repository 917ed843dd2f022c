"""Known differences (conformance/differences.py): the one several peers share, `after-eos`."""



from conformance.differences import AFTER_EOS
from conformance.divergence import Divergence
from conformance.vectors import GrammarSpec, load_builtin


def test_after_eos_means_the_output_ended():
    """An EOS that ended a stop="" lexeme does not end the output (after-eos does not apply)."""
    v = load_builtin("special")
    spec = GrammarSpec("lark", 'start: x "!"\nx[stop=""]: /[a-z]+/\n')
    eos = v.eos_token_id
    eaten = Divergence(spec, v, [ord("a"), eos], 2, [eos], [])
    ended = Divergence(spec, v, [ord("a"), eos, ord("!"), eos], 4, [eos], [])
    assert not eaten.after_eos and ended.after_eos
    assert AFTER_EOS.applies(ended) and not AFTER_EOS.applies(eaten)
