"""Browser play: ``splitpoker play`` serves a page on which a person plays a match against
agents (:mod:`.session` holds the match, :mod:`.server` is the web layer, the page is in
``static/``). The web layer needs the optional ``[play]`` extra."""
