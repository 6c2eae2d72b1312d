{
  "targets": [
    {
      "target_name": "reexec",
      "sources": ["reexec.c"]
    }
  ]
}
