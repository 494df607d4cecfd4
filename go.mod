module klondike

go 1.26
