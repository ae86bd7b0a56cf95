from graphrag.cli import main

main()
