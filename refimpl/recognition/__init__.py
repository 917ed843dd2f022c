"""Recognition: bytes against a compiled grammar (docs/semantics.md, docs/earley.md).

    lexer.py        one lazy DFA over all the lexemes a parser row allows
    earley.py       Earley's parser over lexemes, with Leo items; rows that push and are reused
    recognizer.py   lexer + parser, one byte at a time; its state is a value (lexer state, top)
    compaction.py   compacted Earley sets: one key for parser states with the same future
"""
