print("filled")
