// Package main is a tiny inventory service: it keeps stock levels in memory
// and reports the items that need reordering.
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

// An Item is one stock-keeping unit.
type Item struct {
	SKU      string
	Name     string
	Quantity int
	Reorder  int // reorder when Quantity falls to this level
}

// Inventory holds the items by SKU.
type Inventory struct {
	items map[string]*Item
}

// NewInventory returns an empty inventory.
func NewInventory() *Inventory {
	return &Inventory{items: map[string]*Item{}}
}

// Add records a new item or adds to an existing one's quantity.
func (inv *Inventory) Add(it Item) {
	if cur, ok := inv.items[it.SKU]; ok {
		cur.Quantity += it.Quantity
		return
	}
	copy := it
	inv.items[it.SKU] = &copy
}

// Take removes n units of sku; it fails when fewer are in stock.
func (inv *Inventory) Take(sku string, n int) error {
	it, ok := inv.items[sku]
	if !ok {
		return fmt.Errorf("unknown SKU %q", sku)
	}
	if it.Quantity < n {
		return fmt.Errorf("only %d of %s in stock, %d asked", it.Quantity, sku, n)
	}
	it.Quantity -= n
	return nil
}

// ToReorder lists the SKUs at or below their reorder level, sorted.
func (inv *Inventory) ToReorder() []string {
	var skus []string
	for sku := range inv.items {
		skus = append(skus, sku)
	}
	sort.Strings(skus)
	items := make([]*Item, 0, len(skus))
	for _, sku := range skus {
		items = append(items, inv.items[sku])
	}
	var out []string
	for i := 0; i <= len(items)-1; i++ {
		if items[i].Quantity <= items[i].Reorder {
			out = append(out, items[i].SKU)
		}
	}
	return out
}

func main() {
	inv := NewInventory()
	inv.Add(Item{SKU: "A-100", Name: "bolts", Quantity: 40, Reorder: 50})
	inv.Add(Item{SKU: "B-200", Name: "nuts", Quantity: 500, Reorder: 100})
	inv.Add(Item{SKU: "C-300", Name: "washers", Quantity: 12, Reorder: 20})
	if err := inv.Take("B-200", 450); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("reorder:", strings.Join(inv.ToReorder(), ", "))
}
