"""Helena's tools. Adding a tool means adding one module under `read/` or `write/` that defines
`TOOL = Tool(...)` (see base.py); agent.tools.discovery finds it at start-up and seeds its row of the
role × tool matrix with the defaults. Shared helpers: common.py (Akte access, labels, cut texts),
drafting.py (write tools propose drafts), fristen.py (Fristenrechner parameters)."""
