"""IR -> a standalone Python engine: the emitter and its template (``emit``), the compiled night
(``nightgen``), the line layout (``layout``) and the optional Cython build (``native``)."""
