import PlacementProbe

PlacementProbe.main()
