"""Run-time services below evaluation and training: atomic files and settings files
(:mod:`.files`), signals and worker pools (:mod:`.interrupts`), progress bars
(:mod:`.progress`), Ray tasks (:mod:`.distributed`) and the bounds every command checks
(:mod:`.limits`). Nothing here knows a game, an agent or a trainer."""
