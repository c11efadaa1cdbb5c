"""Side panels: dataset, method (parameter form built from ParamSpec) and results."""
