"""The kernel protocol parser, on recorded kernel output."""
import pytest

from layertax.engine.measure.protocol import ProtocolError, parse

DESCRIPTOR = '{"kernel":"k","case":"c","language":"c","ops_per_iter":2}'


def test_parses_descriptor_and_samples():
    out = parse("\n".join([DESCRIPTOR,
                           '{"case":"c","iters":10,"ops":20,"ns":5000,"csw_vol":0,"csw_invol":1,"minflt":3}',
                           '{"case":"c","iters":10,"ops":20,"ns":5100}', ""]), expected_case="c")
    assert out.descriptor["kernel"] == "k"
    assert out.samples == [{"iters": 10, "ns": 5000, "ops": 20, "csw_vol": 0, "csw_invol": 1, "minflt": 3},
                           {"iters": 10, "ns": 5100, "ops": 20}]
    assert out.error is None and out.skip is None


def test_ops_default_to_iterations():
    out = parse(DESCRIPTOR + '\n{"case":"c","iters":7,"ns":70}')
    assert out.samples[0]["ops"] == 7


def test_skip_and_error_lines():
    assert parse('{"case":"c","skip":"no io_uring"}').skip == "no io_uring"
    out = parse(DESCRIPTOR + '\n{"case":"c","error":"wrong result"}')
    assert out.error == "wrong result"


@pytest.mark.parametrize("text, message", [
    ("not json", "not JSON"),
    ("[1, 2]", "JSON object"),
    ('{"case":"c","iters":1,"ns":5}', "before the descriptor"),
    (DESCRIPTOR + "\n" + DESCRIPTOR, "second descriptor"),
    (DESCRIPTOR + '\n{"case":"c","iters":1}', "lacks ns"),
    (DESCRIPTOR + '\n{"case":"c","iters":0,"ns":5}', "measures nothing"),
    (DESCRIPTOR + '\n{"case":"c","iters":1,"ns":-5}', "non-negative integer"),
    (DESCRIPTOR + '\n{"case":"c","iters":1.5,"ns":5}', "non-negative integer"),
    (DESCRIPTOR + '\n{"case":"c","iters":true,"ns":5}', "non-negative integer"),
    (DESCRIPTOR + '\n{"case":"other","iters":1,"ns":5}', "expected 'c'"),
])
def test_malformed_output_is_a_protocol_error(text, message):
    with pytest.raises(ProtocolError, match=message):
        parse(text, expected_case="c")
