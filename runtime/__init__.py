"""Run-time services below evaluation and training: atomic files and settings files
(:mod:`.files`), files read only when they are regular files (:mod:`.reading`), signals
(:mod:`.interrupts`), worker pools (:mod:`.workers`), progress bars (:mod:`.progress`), Ray tasks
(:mod:`.distributed`), seeds and random generators (:mod:`.seeding`), the bounds every
command checks (:mod:`.limits`), the checks of every argument's value (:mod:`.arguments`:
whole numbers, numbers, the argparse types), registries of named entry points
(:mod:`.registry`) and the old paths of moved modules (:mod:`.moved`).
Nothing here knows a game, an agent or a trainer."""
