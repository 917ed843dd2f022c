"""The peers: other engines checked against refimpl, one package each."""
