import json, sys
names = {}
def nm(x):
    if x not in names: names[x] = '%s%d' % ('R' if len(x) == 66 else 'P', len([k for k in names if len(k)==len(x)])+1)
    return names[x]
for line in open(sys.argv[1]):
    o = json.loads(line)
    card = 'VOID' if o.get('void') else o['card']['code']
    evs = []
    for e in o['events']:
        t = e['type']
        if t == 'draw':
            evs.append('draw %s %s%s %s' % (nm(e['round']), e['handOwner'][0], e.get('handIndex',''), e['card']))
        elif t == 'action':
            evs.append('ACT %s %s %s txi%d h%s ins%s stake=%s' % (e['action'], nm(e['round']), nm(e['player']), e['txIndex'], e.get('handIndex','-'), e.get('insurance','-'), e['stake']))
        elif t == 'reject':
            evs.append('REJ %s txi%d from=%s round=%s %s refund=%s' % (e.get('action','-'), e['txIndex'], nm(e['from']), nm(e['round']) if 'round' in e else '-', e['reason'], e['refund']))
        elif t == 'settle':
            s = 'SETTLE %s %s dealer=%s/%d' % (nm(e['round']), nm(e['player']), ','.join(e['dealerHand']['cards']), e['dealerHand']['total'])
            for h in e['playerHands']:
                s += ' | h%d %s/%d bet=%s %s pay=%s' % (h['handIndex'], ','.join(h['cards']), h['total'], h['betAmount'], h['status'], h['payout'])
            if 'insurance' in e: s += ' | ins bet=%s pay=%s' % (e['insurance']['betAmount'], e['insurance']['payout'])
            s += ' || total bet=%s pay=%s' % (e['betAmount'], e['payout'])
            evs.append(s)
        else:
            evs.append(t.upper() + ' ' + json.dumps({k:v if not (isinstance(v,str) and v.startswith('0x') and len(v) in (42,66)) else nm(v) for k,v in e.items() if k!='type'}))
    print(o['height'], card, *(['\n    ' + e for e in evs] or []))
