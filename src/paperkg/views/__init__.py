"""Interactive pictures of the graph (PyVis / vis-network): `draw` picks and styles the
nodes and edges of a view, `page` renders it as one HTML page that works offline."""
